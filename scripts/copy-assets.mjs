// tsc only emits .js: the SQL migrations and the web client's static files ship beside the compiled code.
import { cpSync } from 'node:fs';
cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true });
cpSync('src/web/static', 'dist/web/static', { recursive: true });
cpSync('src/compat/store/migrations', 'dist/compat/store/migrations', { recursive: true });
