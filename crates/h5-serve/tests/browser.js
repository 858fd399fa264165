// The browser test's driver (playwright-core, Debian's Chromium): open the page `h5 serve`
// serves, check the tree shows the file's groups, open a 2-D dataset, check its heatmap.
// argv: playwright-core folder, chromium, URL, user-data folder, screenshot path.
const [, , pwDir, chromium, url, userData, shot] = process.argv;
const { chromium: launcher } = require(`${pwDir}/node_modules/playwright-core`);

(async () => {
  const ctx = await launcher.launchPersistentContext(userData, {
    executablePath: chromium,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
    viewport: { width: 1200, height: 800 },
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  const tree = page.getByRole('treeitem', { name: 'entry' });
  await tree.waitFor({ timeout: 30000 });
  const groups = await page.getByRole('treeitem').allInnerTexts();
  await tree.click();
  await page.getByRole('treeitem', { name: 'data' }).click();
  await page.getByRole('treeitem', { name: 'image', exact: true }).click();
  await page.getByRole('tab', { name: 'Heatmap' }).waitFor({ timeout: 30000 });
  const selected = await page.getByRole('tab', { name: 'Heatmap' }).getAttribute('aria-selected');
  const figure = page.getByRole('figure', { name: 'image' });
  await figure.waitFor({ timeout: 30000 });
  await page.locator('canvas').first().waitFor({ timeout: 30000 });
  await page.waitForTimeout(1000);
  const canvases = await figure.locator('canvas').count();
  await page.screenshot({ path: shot });
  console.log(JSON.stringify({ groups, selected, canvases, errors }));
  await ctx.close();
})().catch((e) => {
  console.error(String(e));
  process.exit(1);
});
