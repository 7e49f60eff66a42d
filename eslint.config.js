// Lint: typescript-eslint's type-aware recommended rules over every folder with code. A
// floating or misused promise in the server is a real bug (an unhandled rejection ends the
// process; a promise where a callback expects void swallows its error), so those two rules
// are on everywhere, tests included. The rules turned off are listed, with why, in
// docs/architecture.md under "Lint and format".
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['dist/**', 'bench/dist/**', 'coverage/**', '.tap/**', 'node_modules/**', 'data/**', 'test-results/**'],
  },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        // Each file is checked with the tsconfig.json nearest to it (root, src/web, bench, test,
        // scripts); this file, outside them all, gets a default project.
        projectService: {
          allowDefaultProject: ['*.js'],
        },
        tsconfigRootDir: import.meta.dirname,
        // The .mjs scripts state their types in JSDoc, which the parser skips by default.
        jsDocParsingMode: 'type-info',
      },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Passing on a caught value (reject(err) in a catch) is allowed; rejecting with a literal is not.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // Fastify's async handlers answer with what they return (a sync one must call reply.send),
      // and tap's subtests take async callbacks: an async function without await is the contract.
      '@typescript-eslint/require-await': 'off',
      // `_name` marks a parameter an interface requires and this implementation does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
    },
  },
  {
    // These import dist/, which exists after the build: lint must not depend on a (fresh) build.
    files: ['bin/*.js', 'bench/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // tap tracks its subtests and awaits them itself: a t.test() not awaited is tap's idiom, not a lost promise.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }] },
      ],
      // Tests read real answers (response.json(), page.evaluate(), parsed log lines) whose type
      // is any, and check their shape with t.match/t.same at run time; typing every payload
      // first would add casts, not safety.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
