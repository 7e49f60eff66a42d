// tsc only emits .js; the SQL migrations ship beside the compiled store.
import { cpSync } from 'node:fs';
cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true });
