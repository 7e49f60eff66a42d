import { runShard } from '../helpers/shard.js';

await runShard('process', 4, 6);
