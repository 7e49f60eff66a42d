import { runShard } from '../helpers/shard.js';

await runShard('service', 8, 8);
