/** Polls `/healthz` until the server answers, then asks `/tts/config` so its engines are up. */
export async function waitUntilReady(url: string, tries = 600): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* starting */
    }
    if (i > tries) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  await fetch(`${url}/tts/config`);
}
