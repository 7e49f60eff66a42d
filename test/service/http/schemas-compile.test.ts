// The engine listener compiles its routes' schemas on first use (src/http/lazy-schemas.ts), so
// a start no longer proves that every schema compiles: this does, for every route. (The compat
// listener declares no schemas: the meeting API reads its queries itself, as upstream does.)
import t from 'tap';
import { LazySchemas } from '../../../src/http/lazy-schemas.js';
import { appFor } from '../../helpers/app.js';

t.test("the engine listener: nothing compiled at start, then every route's schemas compile", async (t) => {
  const schemas = new LazySchemas();
  await appFor(t, { schemas });
  const waiting = schemas.pending;
  t.ok(waiting >= 20, `${waiting} schemas wait for their route's first request`);
  t.equal(schemas.compileAll(), waiting, 'each compiles');
  t.equal(schemas.pending, 0);
});
