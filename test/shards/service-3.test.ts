import { runShard } from '../helpers/shard.js';

await runShard('service', 3, 4);
