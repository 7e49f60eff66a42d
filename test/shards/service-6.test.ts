import { runShard } from '../helpers/shard.js';

await runShard('service', 6, 8);
