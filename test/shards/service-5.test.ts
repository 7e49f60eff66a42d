import { runShard } from '../helpers/shard.js';

await runShard('service', 5, 8);
