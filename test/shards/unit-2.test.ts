import { runShard } from '../helpers/shard.js';

await runShard('unit', 2, 2);
