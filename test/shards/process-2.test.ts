import { runShard } from '../helpers/shard.js';

await runShard('process', 2, 6);
