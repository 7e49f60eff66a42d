// `node --import ./test/loader/register.mjs file.ts`: loads TypeScript through the hooks beside it.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
