import { launchBrowser } from './lib/browser.ts';
const b = await launchBrowser();
const p = await b.newPage();
p.on('pageerror', (e) => console.log('pageerror:', e.message));
await p.goto('http://127.0.0.1:5199/#/');
await p.waitForTimeout(4000);
console.log((await p.evaluate(() => document.body.innerText)).slice(0, 120).replace(/\n/g, ' | '));
await b.close();
