import { runShard } from '../helpers/shard.js';

await runShard('process', 3, 6);
