import t from 'tap';
import { inPrivateNetwork } from '../helpers/browser.js';
import { runShard, shardTimeoutMs } from '../helpers/shard.js';

// The parent only relays the namespace's child (inPrivateNetwork), which runs the share.
t.setTimeout(shardTimeoutMs.e2e);
if (!inPrivateNetwork(t, import.meta.url)) await runShard('e2e', 3, 4);
