import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.js';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('has a default for every setting that serves the embedded mode', () => {
    const c = loadConfig({});
    const dataDir = path.resolve('./data');
    expect(c).toMatchObject({
      PORT: 8080,
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PUBLIC_URL: 'http://127.0.0.1:8080',
      LOG_LEVEL: 'info',
      TRUST_PROXY: false,
      CODE_LIMIT_PER_IP_HOUR: 30,
      CODE_LIMIT_PER_EMAIL_DAY: 20,
      SIGN_IN_LIMIT_PER_IP_MINUTE: 30,
      HOLD_SWEEP_SECONDS: 60,
    });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.REDIS_URL).toBeUndefined();
    expect(c.S3_URL).toBeUndefined();
    expect(c.SECRET).toBeUndefined();
    expect(c.MAIL_URL).toMatch(/^file:\/\//);
    expect(fileURLToPath(c.MAIL_URL)).toBe(path.join(dataDir, 'outbox'));
    // Where `npm run models -- add` installs by default.
    expect(c.MODELS_DIR).toBe(path.join(dataDir, 'models'));
    expect(c.CREDITS_CONFIG).toMatch(/apps[/\\]server[/\\]config[/\\]credits\.json$/);
    // The platform's own list and the one imported from LDNOOBW.
    expect(c.SENSITIVE_WORDS_FILES).toHaveLength(2);
    expect(c.SENSITIVE_WORDS_FILES[0]).toMatch(/apps[/\\]server[/\\]config[/\\]sensitive-words\.txt$/);
    expect(c.SENSITIVE_WORDS_FILES[1]).toMatch(/apps[/\\]server[/\\]config[/\\]sensitive-words-ldnoobw\.txt$/);
    expect(c.SENSITIVE_WORDS_FILES.every((f) => path.isAbsolute(f) && fs.existsSync(f))).toBe(true);
    expect(path.isAbsolute(c.WEB_DIST)).toBe(true);
  });

  it('reads SENSITIVE_WORDS_FILES as a comma list of paths', () => {
    const c = loadConfig({ SENSITIVE_WORDS_FILES: 'words.txt, /etc/polyvox/own words.txt,' });
    expect(c.SENSITIVE_WORDS_FILES).toEqual([path.resolve('words.txt'), path.resolve('/etc/polyvox/own words.txt')]);
  });

  it.each(['/tmp/polyvox data', '/tmp/polyvox #1', '/tmp/100% polyvox?', '/tmp/数据'])(
    'keeps the default outbox under DATA_DIR=%j',
    (dir) => {
      const c = loadConfig({ DATA_DIR: dir });
      expect(c.DATA_DIR).toBe(path.resolve(dir));
      expect(fileURLToPath(c.MAIL_URL)).toBe(path.join(path.resolve(dir), 'outbox'));
      expect(c.MODELS_DIR).toBe(path.join(path.resolve(dir), 'models'));
      expect(loadConfig({ DATA_DIR: dir, MODELS_DIR: 'own models' }).MODELS_DIR).toBe(path.resolve('own models'));
      expect(loadConfig({ DATA_DIR: dir, MODELS_DIR: '' }).MODELS_DIR).toBe(path.join(path.resolve(dir), 'models'));
    },
  );

  it('reads the settings it is given, and treats empty values as unset', () => {
    const c = loadConfig({
      PORT: '9090',
      HOST: '::1',
      DATABASE_URL: 'postgres://u@db/polyvox',
      MAIL_URL: 'smtp://mail:25',
      TRUST_PROXY: 'true',
      CODE_LIMIT_PER_IP_HOUR: '3',
      REDIS_URL: '',
      UNRELATED: 'ignored',
    });
    expect(c).toMatchObject({
      PORT: 9090,
      HOST: '::1',
      DATABASE_URL: 'postgres://u@db/polyvox',
      MAIL_URL: 'smtp://mail:25',
      TRUST_PROXY: true,
      CODE_LIMIT_PER_IP_HOUR: 3,
    });
    expect(c.PUBLIC_URL).toBe('http://[::1]:9090');
    expect(c.REDIS_URL).toBeUndefined();
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['DATABASE_URL', 'mysql://root@localhost/polyvox'],
    ['DATABASE_URL', '/var/lib/polyvox.db'],
    ['MAIL_URL', 'http://mail.example.com'],
    ['REDIS_URL', 'localhost:6379'],
    ['S3_URL', 'not a url'],
    ['LOG_LEVEL', 'verbose'],
    ['TRUST_PROXY', 'yes'],
    ['SECRET', 'short'],
    ['CODE_LIMIT_PER_IP_HOUR', '0'],
    ['HOLD_SWEEP_SECONDS', 'soon'],
    ['SENSITIVE_WORDS_FILES', ' , '],
  ])('stops on a bad %s (%j) with a ConfigError naming it', (name, value) => {
    const err = configError({ [name]: value });
    expect(err.message).toMatch(new RegExp(`(^|\\s)${name}=`));
  });

  it('names every bad setting at once', () => {
    const err = configError({ PORT: 'x', DATABASE_URL: 'sqlite://a', HOST: 'localhost' });
    expect(err.message).toContain('PORT=');
    expect(err.message).toContain('DATABASE_URL=');
    expect(err.message).not.toContain('HOST=');
  });
});

describe('config errors keep secrets out', () => {
  it('hides SECRET and masks passwords in URLs', () => {
    expect(() => loadConfig({ SECRET: 'short' })).toThrow(/SECRET="<hidden>"/);
    let message = '';
    try {
      loadConfig({ DATABASE_URL: 'mysql://admin:hunter2@db/x' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('DATABASE_URL');
    expect(message).not.toContain('hunter2');
    expect(message).toContain('admin:***@');
  });
});

describe('moderation settings', () => {
  it('defaults to the lists alone, open for synthesis and closed for design, 180 days kept', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      MODERATION_PROVIDER: 'none',
      MODERATION_FAIL_SYNTHESIS: 'open',
      MODERATION_FAIL_DESIGN: 'closed',
      MODERATION_KEEP_DAYS: 180,
    });
  });

  it('refuses a provider without its keys, and names no secret', () => {
    expect(configError({ MODERATION_PROVIDER: 'openai' }).message).toContain('MODERATION_PROVIDER=openai: needs MODERATION_KEY');
    expect(configError({ MODERATION_PROVIDER: 'aliyun', MODERATION_KEY: 'sek' }).message).toContain('needs MODERATION_KEY_ID');
    expect(configError({ MODERATION_PROVIDER: 'other' }).message).toContain('MODERATION_PROVIDER=');
    expect(loadConfig({ MODERATION_PROVIDER: 'openai', MODERATION_KEY: 'sk-x' }).MODERATION_PROVIDER).toBe('openai');
    expect(configError({ MODERATION_KEY: 'sk-x', MODERATION_TIMEOUT_MS: '1' }).message).not.toContain('sk-x');
  });
});
