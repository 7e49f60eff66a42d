// Issue 29, point 12: SERVICE_METRICS_ADDR is off unless set, and on loopback unless
// SERVICE_METRICS_ALLOW_REMOTE=true says otherwise (the metrics answer without a token).
import t from 'tap';
import { ConfigError } from '../../../src/config/config-error.js';
import { loadConfig } from '../../../src/config/load.js';

const refusal = (env: Record<string, string>): string => {
  try {
    loadConfig({ env });
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return '';
};

t.test('off by default', async (t) => {
  const config = loadConfig({ env: {} });
  t.equal(config.metricsAddr, null);
  t.equal(config.metricsAllowRemote, false);
});

t.test('loopback addresses are taken as they are', async (t) => {
  for (const addr of ['127.0.0.1:9464', '[::1]:9464', 'localhost:9464', '127.0.0.53:0']) {
    const config = loadConfig({ env: { SERVICE_METRICS_ADDR: addr } });
    t.equal(config.metricsAddr?.port, Number(addr.split(':').pop()), addr);
  }
});

t.test('any other address is refused, naming the variable, the value and the opt-in', async (t) => {
  for (const addr of ['0.0.0.0:9464', '[::]:9464', '10.0.0.5:9464', 'metrics.example.org:9464']) {
    const message = refusal({ SERVICE_METRICS_ADDR: addr });
    t.match(message, /^SERVICE_METRICS_ADDR must be a loopback address/, addr);
    t.match(message, addr, 'names the value');
    t.match(message, 'SERVICE_METRICS_ALLOW_REMOTE=true');
  }
  const allowed = loadConfig({ env: { SERVICE_METRICS_ADDR: '0.0.0.0:9464', SERVICE_METRICS_ALLOW_REMOTE: 'true' } });
  t.same(allowed.metricsAddr, { host: '0.0.0.0', port: 9464 });
});

t.test('malformed values name their variable', async (t) => {
  t.match(refusal({ SERVICE_METRICS_ADDR: 'everywhere' }), /^SERVICE_METRICS_ADDR must be host:port/);
  t.match(
    refusal({ SERVICE_METRICS_ADDR: '127.0.0.1:9464', SERVICE_METRICS_ALLOW_REMOTE: 'perhaps' }),
    /^SERVICE_METRICS_ALLOW_REMOTE must be one of true, false/,
  );
});
