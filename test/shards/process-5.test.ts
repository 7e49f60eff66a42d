import { runShard } from '../helpers/shard.js';

await runShard('process', 5, 6);
