import { ConfigError, loadConfig } from '../../../src/platform/config/app-config';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.publicUrl).toBe('http://localhost:3000/');
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toMatch(/\/data$/);
    expect(config.notifications.method).toBe('smtp');
    expect(config.adminManagementPolicy).toBe('grantor-inheritance');
    expect(config.superAdminEnabled).toBe(false);
    expect(config.passwordLoginEnabled).toBe(true);
    expect(config.password).toEqual({ minLength: 8, complexity: [], checkPwned: 'local' });
    expect(config.attachments.releaseAllowedTypes).toBe('*/*');
  });

  it('adds the trailing slash to PUBLIC_URL', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://dev.example.com' }).publicUrl).toBe('https://dev.example.com/');
  });

  it.each([
    ['PORT', 'abc', /PORT must be an integer/],
    ['PORT', '70000', /PORT must be between 0 and 65535/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL must use postgres: or postgresql:/],
    ['DATABASE_URL', 'not a url', /DATABASE_URL must be a URL/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of/],
    ['SUPER_ADMIN_ENABLED', 'maybe', /SUPER_ADMIN_ENABLED must be true or false/],
    ['ADMIN_MANAGEMENT_POLICY', 'anyone', /ADMIN_MANAGEMENT_POLICY must be one of/],
    ['PASSWORD_COMPLEXITY', 'lower,emoji', /PASSWORD_COMPLEXITY accepts/],
    ['NOTIFICATIONS_METHOD', 'pigeon', /NOTIFICATIONS_METHOD must be one of/],
    ['REDIS_URL', 'http://x', /REDIS_URL must use redis: or rediss:/],
    ['SMTP_URL', 'http://x', /SMTP_URL must use smtp: or smtps:/],
  ])('%s=%s stops the start with a message naming the variable', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });
});
