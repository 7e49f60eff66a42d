import { runShard } from '../helpers/shard.js';

await runShard('unit', 3, 4);
