import { runShard } from '../helpers/shard.js';

await runShard('service', 2, 4);
