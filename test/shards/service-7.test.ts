import { runShard } from '../helpers/shard.js';

await runShard('service', 7, 8);
