import { runShard } from '../helpers/shard.js';

await runShard('unit', 1, 2);
