import { runShard } from '../helpers/shard.js';

await runShard('service', 1, 4);
