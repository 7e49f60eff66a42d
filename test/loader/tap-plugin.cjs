// A tap plugin that runs the TypeScript test files through esbuild (register.mjs) instead of
// @tapjs/typescript's ts-node, which spent about 3 s of CPU per test process transpiling the
// app with the TypeScript compiler. Types are checked once, by `npm run typecheck`.
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

exports.testFileExtensions = ['ts'];
// tap bakes this string into its runner when it builds the plugin set, once per checkout.
exports.importLoader = pathToFileURL(join(__dirname, 'register.mjs')).href;
