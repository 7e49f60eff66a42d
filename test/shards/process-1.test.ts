import { runShard } from '../helpers/shard.js';

await runShard('process', 1, 6);
