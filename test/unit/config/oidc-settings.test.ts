// The single sign-on settings (issue 32 point 2): off by default, the client secret masked, and
// an issuer that cannot work stops the start naming the variable.
import t from 'tap';
import { loadConfig, maskedConfig } from '../../../src/config/load.js';
import { ConfigError } from '../../../src/config/config-error.js';

const sso = {
  SERVICE_OIDC_ISSUER: 'https://login.school.example/realms/staff',
  SERVICE_OIDC_CLIENT_ID: 'meet',
  SERVICE_OIDC_CLIENT_SECRET: 'client-secret-of-the-school-0123',
};

t.test('off by default; accounts made on first sign-in; any domain', async (t) => {
  const config = loadConfig({ env: {} });
  t.equal(config.oidcIssuer, null);
  t.equal(config.oidcCreateAccounts, true);
  t.same(config.oidcAllowedDomains, []);
});

t.test('read, the domains in lower case, the client secret masked', async (t) => {
  const config = loadConfig({
    env: {
      ...sso,
      SERVICE_OIDC_ALLOWED_DOMAINS: 'School.example, staff.school.example',
      SERVICE_OIDC_CREATE_ACCOUNTS: 'false',
    },
  });
  t.equal(config.oidcIssuer, sso.SERVICE_OIDC_ISSUER);
  t.equal(config.oidcClientId, 'meet');
  t.same(config.oidcAllowedDomains, ['school.example', 'staff.school.example']);
  t.equal(config.oidcCreateAccounts, false);
  const masked = maskedConfig(config);
  t.equal(masked.SERVICE_OIDC_CLIENT_SECRET, '***');
  t.notMatch(JSON.stringify(masked), /client-secret-of-the-school/);
  t.equal(
    loadConfig({ env: { ...sso, SERVICE_OIDC_ISSUER: 'http://127.0.0.1:9000' } }).oidcIssuer,
    'http://127.0.0.1:9000',
    'http on this machine',
  );
});

t.test('an issuer that cannot work names the variable', async (t) => {
  const refused = (env: Record<string, string>) => {
    try {
      loadConfig({ env });
      return '';
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      return err.message;
    }
  };
  t.match(
    refused({ SERVICE_OIDC_ISSUER: sso.SERVICE_OIDC_ISSUER }),
    /SERVICE_OIDC_CLIENT_ID and SERVICE_OIDC_CLIENT_SECRET/,
  );
  t.match(
    refused({ ...sso, SERVICE_OIDC_ISSUER: 'http://login.school.example' }),
    /^SERVICE_OIDC_ISSUER must be an https:\/\//,
  );
  t.match(
    refused({ ...sso, SERVICE_OIDC_ISSUER: 'https://login.school.example/?x=1' }),
    /^SERVICE_OIDC_ISSUER must be an issuer without/,
  );
  t.match(
    refused({ ...sso, SERVICE_OIDC_ALLOWED_DOMAINS: '@school.example' }),
    /^SERVICE_OIDC_ALLOWED_DOMAINS must list email domains/,
  );
  t.match(refused({ ...sso, SERVICE_OIDC_CLIENT_SECRET: ' ' }), /^SERVICE_OIDC_CLIENT_SECRET must not be empty/);
});
