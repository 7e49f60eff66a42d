import type { DoctorCheck } from './check.js';
import { configCheck } from './config.js';
import { dataDirCheck } from './data-dir.js';
import { envFileCheck } from './env-file.js';
import { licenceCheck } from './licence.js';
import { mediaNetworkCheck } from './media-network.js';
import { listenersBehindNginxCheck, nginxFileCheck, nginxLinesCheck, nginxTestCheck } from './nginx.js';
import { nodeVersionCheck } from './node-version.js';
import { ownershipCheck } from './ownership.js';
import { compatPortCheck, enginePortCheck } from './ports.js';
import { joinBaseCheck } from './public-url.js';
import { unitCheck } from './systemd.js';
import { secretsCheck, tenantsCheck } from './tenants.js';

/** Every check of `meetctl doctor`, in the order they are printed. */
export const doctorChecks: readonly DoctorCheck[] = [
  nodeVersionCheck,
  envFileCheck,
  configCheck,
  dataDirCheck,
  enginePortCheck,
  compatPortCheck,
  mediaNetworkCheck,
  licenceCheck,
  tenantsCheck,
  secretsCheck,
  nginxFileCheck,
  nginxTestCheck,
  nginxLinesCheck,
  listenersBehindNginxCheck,
  joinBaseCheck,
  unitCheck,
  ownershipCheck,
];
