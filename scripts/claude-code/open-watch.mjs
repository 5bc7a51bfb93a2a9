// Opens a watch link in Debian's Chromium, lets it play four seconds, and prints what a person would
// check: the page's security headers, the player's clock and moments, every host the page asked,
// and what its Content Security Policy blocked. Usage: node open-watch.mjs <url> [screenshot.png]
import { chromium } from 'playwright-core';

const [url, shot] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const hosts = new Set();
  const blocked = [];
  page.on('request', (request) => hosts.add(new URL(request.url()).host));
  page.on('console', (message) => /Content Security Policy/.test(message.text()) && blocked.push(message.text()));
  const response = await page.goto(url);
  const headers = response.headers();
  console.log(`status ${response.status()}; referrer-policy ${headers['referrer-policy']}; cache-control ${headers['cache-control']}; csp ${headers['content-security-policy']?.slice(0, 60)}…`);
  await page.waitForTimeout(4000);
  console.log(await page.evaluate(() => `player: ${document.body.innerText.split('\n').slice(0, 4).join(' | ')}`));
  console.log(`hosts asked: ${[...hosts].join(', ')}; blocked by CSP: ${blocked.length ? blocked.join(' / ') : 'nothing'}`);
  if (shot) await page.screenshot({ path: shot });
} finally {
  await browser.close();
}
