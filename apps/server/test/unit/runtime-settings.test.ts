/**
 * platform/runtime-settings.ts on a real SQLite file: the cache's life on an injected clock, a change seen by a
 * second reader (another process's) only once its copy is stale, a stored value the rules refuse ignored key by key,
 * a change racing another refused, live views following; and the settings' rules are the start-up's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTING_KEYS } from '@polyvox/contracts';
import { migrate, openDatabase, type Db } from '../../src/platform/db/database.js';
import { liveView, RuntimeSettings, VersionConflict } from '../../src/platform/runtime-settings.js';
import { loadConfig } from '../../src/platform/config.js';
import { OPERATOR_SETTING_KEYS, OperatorSettingsPatch, operatorSettings, startingSettings } from '../../src/platform/settings.js';
import { seal, unseal } from '../../src/platform/crypto.js';

let dir: string;
let db: Db;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'polyvox-runtime-settings-'));
  db = openDatabase({ dataDir: dir });
  await migrate(db);
});
afterAll(async () => {
  await db.kysely.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('runtime settings', () => {
  const base = startingSettings(loadConfig({ DATA_DIR: dir }), { anonymous_trial: 1000, free_plan_grant: 10000 });

  it('a second reader sees a change once its copy is older than the cache life, not before', async () => {
    let now = 0;
    const writer = operatorSettings(db.kysely, base);
    const reader = new RuntimeSettings({
      db: db.kysely,
      name: 'settings',
      base,
      schema: OperatorSettingsPatch,
      ttlMs: 1000,
      now: () => now,
    });
    expect((await reader.read()).values.VERIFY_PER_MINUTE).toBe(10);
    const { before, after, version } = await writer.update({ VERIFY_PER_MINUTE: 3 }, 'acc_1');
    expect(before).toEqual({});
    expect(after).toEqual({ VERIFY_PER_MINUTE: 3 });
    now = 999;
    expect((await reader.read()).values.VERIFY_PER_MINUTE).toBe(10);
    now = 1000;
    const read = await reader.read();
    expect(read).toMatchObject({ version, overrides: { VERIFY_PER_MINUTE: 3 }, updatedBy: 'acc_1' });
    expect(read.values.VERIFY_PER_MINUTE).toBe(3);
    // A live view reads the value in force at each access.
    const view = liveView(reader, { perMinute: 'VERIFY_PER_MINUTE' }, { fixed: 1 });
    expect(view).toMatchObject({ perMinute: 3, fixed: 1 });
    await writer.update({ VERIFY_PER_MINUTE: 4 }, 'acc_1');
    now = 3000;
    await reader.refresh();
    expect(view.perMinute).toBe(4);
  });

  it('refuses a value the start-up would refuse, and a key it does not know', () => {
    expect(() => OperatorSettingsPatch.parse({ VERIFY_PER_MINUTE: 0 })).toThrow();
    expect(() => OperatorSettingsPatch.parse({ VERIFY_PER_MINUTE: 10_001 })).toThrow();
    expect(() => loadConfig({ DATA_DIR: dir, VERIFY_PER_MINUTE: '10001' })).toThrow(/VERIFY_PER_MINUTE/);
    expect(() => OperatorSettingsPatch.parse({ AI_LABEL_EXPLICIT: 'loud' })).toThrow();
    expect(() => OperatorSettingsPatch.parse({ SECRET: 'x' })).toThrow();
    expect(() => OperatorSettingsPatch.parse({ ANONYMOUS_TRIAL_CREDITS: -1 })).toThrow();
    expect(OperatorSettingsPatch.parse({ SIGNUP_OPEN: false, AI_LABEL_EXPLICIT: 'speech' })).toEqual({
      SIGNUP_OPEN: false,
      AI_LABEL_EXPLICIT: 'speech',
    });
  });

  it('ignores, key by key, a stored value the rules now refuse', async () => {
    await db.kysely
      .updateTable('runtime_settings')
      .set({ value: JSON.stringify({ VERIFY_PER_MINUTE: 0, SIGNUP_OPEN: false, UNKNOWN: 1 }) })
      .where('name', '=', 'settings')
      .execute();
    const read = await operatorSettings(db.kysely, base).refresh();
    expect(read.overrides).toEqual({ SIGNUP_OPEN: false });
    expect(read.values.VERIFY_PER_MINUTE).toBe(10);
  });

  it('refuses a change made against a version another change replaced', async () => {
    const s = operatorSettings(db.kysely, base);
    const { version } = await s.refresh();
    await s.update({ CODE_LIMIT_PER_IP_HOUR: 5 }, 'acc_1', db.kysely, version);
    await expect(s.update({ CODE_LIMIT_PER_IP_HOUR: 6 }, 'acc_2', db.kysely, version)).rejects.toBeInstanceOf(VersionConflict);
  });

  it('names the same keys as the contract', () => {
    expect([...OPERATOR_SETTING_KEYS].sort()).toEqual([...SETTING_KEYS].sort());
  });
});

describe('sealed values', () => {
  it('open with the same secret and purpose only, and refuse a changed byte', () => {
    const secret = 'a-server-secret-of-enough-length';
    const sealed = seal(secret, 'remote-provider-key', 'sk-live-123456');
    expect(sealed).not.toContain('sk-live');
    expect(seal(secret, 'remote-provider-key', 'sk-live-123456')).not.toBe(sealed);
    expect(unseal(secret, 'remote-provider-key', sealed)).toBe('sk-live-123456');
    expect(() => unseal('another-secret-of-enough-length', 'remote-provider-key', sealed)).toThrow();
    expect(() => unseal(secret, 'other-purpose', sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = (parts[3]![0] === 'A' ? 'B' : 'A') + parts[3]!.slice(1);
    expect(() => unseal(secret, 'remote-provider-key', parts.join('.'))).toThrow();
  });
});
