import { runShard } from '../helpers/shard.js';

await runShard('process', 6, 6);
