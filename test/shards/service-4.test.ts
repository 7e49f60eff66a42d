import { runShard } from '../helpers/shard.js';

await runShard('service', 4, 4);
