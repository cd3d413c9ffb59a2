import fs from 'node:fs/promises';
import path from 'node:path';
import { SID_KEY } from '../lib/browser';
import { env } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { assertFits } from '../lib/layout-checks';
import { givePlan } from '../lib/plan';
import { ROOT } from '../lib/server';
import { dismissToasts } from '../lib/speech';
import { adminApi, becomeOwner, openIn } from '../lib/admin';
import { ensureRegistered } from './economy';

const TAB: Record<string, string> = { en: 'Cloned voices', 'zh-CN': '克隆声音', 'zh-TW': '複製聲音' };

/**
 * A cloned voice its owner deletes stays on the account's page for the operator: the "Cloned voices" tab lists it as
 * deleted with its consent and the day it goes; playing its sample asks for a reason first, and the opening is in
 * the audit trail with that reason. The tab reads in the three languages and fits 390 px and 1440 px.
 */
export function adminRetentionTests(): void {
  test('a deleted clone: listed with its consent, its sample played after a reason, the opening audited', async () => {
    const page = env.page;
    page.on('pageerror', (e) => console.log(`[admin-retention] page error: ${e.stack ?? e.message}`));
    await ensureRegistered(page);
    await givePlan();
    await becomeOwner();
    const sid = (await env.ui.storage(SID_KEY))!;
    const me = await adminApi('GET', '/accounts/me');

    // The account clones a voice from a sample, then deletes the voice.
    const form = new FormData();
    form.append('consent', 'true');
    const wav = await fs.readFile(path.join(ROOT, 'fixtures/speech/jfk.wav'));
    form.append('file', new Blob([new Uint8Array(wav)], { type: 'audio/wav' }), 'jfk.wav');
    const uploaded = await fetch(`${env.server.baseUrl}/files_upload?type=clone`, {
      method: 'POST',
      headers: { 'x-sid': sid },
      body: form,
    });
    assertEqual(uploaded.status, 201, 'the sample is uploaded');
    const sampleId = ((await uploaded.json()) as { id: string }).id;
    const preview = await adminApi('POST', '/voice/previews', {
      type: 'clone',
      model: 'espeak-ng',
      language: 'en',
      preview_text: 'A short sentence to say who made this.',
      file_id: sampleId,
    });
    assertEqual(preview.status, 201, `the clone preview: ${JSON.stringify(preview.body)}`);
    const voice = await adminApi('PUT', '/voice', { type: 'clone', name: 'My own clone', preview_id: preview.body.id });
    assertEqual(voice.status, 201, `the clone is saved: ${JSON.stringify(voice.body)}`);
    assertEqual((await adminApi('DELETE', `/voice?id=${voice.body.id}`)).status, 204, 'the owner deletes it');
    assertEqual((await adminApi('GET', `/voice?id=${voice.body.id}`)).status, 404, 'gone for its owner');

    for (const lang of ['zh-TW', 'zh-CN', 'en']) {
      await openIn(`/admin/accounts/${me.body.id}`, lang);
      await page.getByTestId('tab-cloned').click();
      await page.getByTestId(`cloned-${voice.body.id}`).waitFor();
      assertEqual((await page.getByTestId('tab-cloned').textContent())?.trim(), TAB[lang], `the tab in ${lang}`);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await assertFits(page, 'cloned voices at 390 px');
    await page.setViewportSize({ width: 1440, height: 900 });
    await assertFits(page, 'cloned voices at 1440 px');

    const row = page.getByTestId(`cloned-${voice.body.id}`);
    assert(((await row.textContent()) ?? '').includes('Deleted by the owner'), 'the voice is shown deleted');
    await dismissToasts(page);
    await row.getByTestId('cloned-sample-play').click();
    const confirm = page.getByTestId('sample-confirm');
    assert(await confirm.isDisabled(), 'no reason, no sample');
    await page.getByTestId('sample-reason').fill('checking a report in e2e');
    const served = page.waitForResponse((r) => r.url().includes(`/cloned-voices/${voice.body.id}/sample`));
    await confirm.click();
    assertEqual((await served).status(), 200, 'the sample is served');
    await row.getByTestId('cloned-sample-audio').waitFor();

    const trail = await adminApi('GET', `/admin/api/audit?action=voice_sample.access&target_id=${sampleId}`);
    assertEqual(trail.status, 200, 'the audit trail answers');
    const entry = (trail.body.items as { reason: string; operator_id: string }[])[0];
    assertEqual(entry?.reason, 'checking a report in e2e', 'the opening is audited with its reason');
    assertEqual(entry?.operator_id, me.body.id, 'and who opened it');
  });
}
