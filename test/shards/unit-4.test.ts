import { runShard } from '../helpers/shard.js';

await runShard('unit', 4, 4);
