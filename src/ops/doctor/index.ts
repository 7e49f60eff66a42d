import type { DoctorCheck } from './check.js';
import { certificateCheck } from './certificate.js';
import { clockCheck } from './clock.js';
import { clusterClocksCheck, clusterViewCheck, natsCheck } from './cluster.js';
import { configCheck } from './config.js';
import { dataDirCheck } from './data-dir.js';
import {
  databaseMigrationsCheck,
  databaseReachableCheck,
  databaseRightsCheck,
  databaseVersionCheck,
} from './database.js';
import { diskSpaceCheck } from './disk-space.js';
import { envFileCheck } from './env-file.js';
import { licenceCheck } from './licence.js';
import { janusCheck } from './janus.js';
import { mediaNetworkCheck } from './media-network.js';
import { listenersBehindNginxCheck, nginxFileCheck, nginxLinesCheck, nginxTestCheck } from './nginx.js';
import { nginxAccessLogCheck } from './nginx-access-log.js';
import { nginxUpstreamsCheck } from './nginx-upstreams.js';
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
  diskSpaceCheck,
  databaseReachableCheck,
  databaseVersionCheck,
  databaseMigrationsCheck,
  databaseRightsCheck,
  natsCheck,
  clusterViewCheck,
  clusterClocksCheck,
  clockCheck,
  enginePortCheck,
  compatPortCheck,
  mediaNetworkCheck,
  janusCheck,
  licenceCheck,
  tenantsCheck,
  secretsCheck,
  nginxFileCheck,
  nginxTestCheck,
  nginxLinesCheck,
  listenersBehindNginxCheck,
  nginxUpstreamsCheck,
  nginxAccessLogCheck,
  certificateCheck,
  joinBaseCheck,
  unitCheck,
  ownershipCheck,
];
