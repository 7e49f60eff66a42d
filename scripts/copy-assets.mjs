// tsc only emits .js: the SQL migrations and the web client's static files ship beside the compiled code.
import { cpSync, writeFileSync } from 'node:fs';
cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true });
cpSync('src/web/static', 'dist/web/static', { recursive: true });
cpSync('src/compat/store/migrations', 'dist/compat/store/migrations', { recursive: true });
// The build's date: `meetctl doctor` knows a clock reading earlier than it is behind (offline evidence, no NTP needed).
writeFileSync('dist/build-info.json', `${JSON.stringify({ builtAt: new Date().toISOString() })}\n`);
