/**
 * The web UI's accounts, API reference and settings in a real headless
 * Chromium from the npm registry, against the real server
 * (tests/support/web-ui-harness.ts): first sign-up as admin, API keys shown
 * once and revoked, sign-out and sign-in, closed sign-up and an invite link,
 * the API reference rendered offline, and Settings → Tools showing a refused
 * value at its field. Every page is watched for uncaught errors, console
 * errors, failed requests and 5xx answers.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { startTestApp } from '../../support/test-app';
import { useWebUiHarness } from '../../support/web-ui-harness';

const h = useWebUiHarness();

describe('the web UI in a browser: accounts and settings', () => {
  test('first sign-up becomes the admin; API keys are shown once, listed and revoked', async () => {
    h.context = await h.newContext();
    const page = await h.openPage('/');
    await page.getByTestId('sign-up-tab').click();
    expect(await page.getByTestId('first-admin-note').innerText()).toContain(
      'becomes its administrator',
    );
    await page.screenshot({ path: join(h.screenshots, 'sign-up.png') });
    await page.getByLabel('Name').fill('Ana');
    await page.getByTestId('email').fill('ana@example.test');
    await page.getByTestId('password').fill('a long passphrase');
    await page.getByTestId('auth-submit').click();
    await page.getByTestId('account-link').click();
    await page.getByTestId('admin-badge').waitFor();
    await page.getByTestId('key-name').fill('my script');
    await page.getByTestId('create-key').click();
    const key = (await page.locator('[data-testid="new-key"] code').innerText()).trim();
    expect(key).toStartWith('mango_');
    await page.getByTestId('key-row').first().waitFor();
    expect(await page.getByTestId('key-row').count()).toBe(1);
    const listed = await h.app.fetch('/api/settings/tools', {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(listed.status).toBe(200);
    await page.screenshot({ path: join(h.screenshots, 'account.png') });
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('No keys yet.').waitFor();
    await page.getByTestId('sign-out').click();
    await page.getByTestId('auth-form').waitFor();
    // And back in with the password.
    await page.getByTestId('email').fill('ana@example.test');
    await page.getByTestId('password').fill('a long passphrase');
    await page.getByTestId('auth-submit').click();
    await page.getByTestId('new-chat').first().waitFor();
    expect(h.problems()).toEqual([]);
  }, 30_000);

  test('on a server with sign-up closed, sign-up says why, and an invite link opens it', async () => {
    const closed = startTestApp(h.testDatabase.database, {
      allowSignup: false,
      webDirectory: h.webDirectory,
    });
    try {
      // The database already has its first account (another test's, or made here).
      await h.app.signUp();
      h.context = await h.newContext();
      const page = await h.openPage('/', closed.url);
      await page.getByTestId('sign-up-tab').click();
      await page.getByTestId('email').fill('bea@example.test');
      await page.getByTestId('password').fill('another passphrase');
      await page.getByTestId('auth-submit').click();
      expect(await page.getByTestId('auth-problem').innerText()).toContain('Sign-up is closed');
      const { token } = await h.app.auth.invites.create({ createdBy: null });
      await page.goto(`${closed.url}/?invite=${encodeURIComponent(token)}`);
      expect(await page.getByTestId('first-admin-note').innerText()).toContain('with an invite');
      await page.getByTestId('email').fill('bea@example.test');
      await page.getByTestId('password').fill('another passphrase');
      await page.getByTestId('auth-submit').click();
      await page.getByTestId('new-chat').first().waitFor();
      expect(await page.getByTestId('admin-badge').count()).toBe(0);
      expect(h.problems()).toEqual([]);
    } finally {
      await closed.stop();
    }
  }, 30_000);

  test('the API reference the top bar links to renders from this server alone', async () => {
    await h.signedInContext();
    const page = await h.openPage('/');
    const hosts = new Set<string>();
    page.on('request', (request) => hosts.add(new URL(request.url()).host));
    expect(await page.getByRole('link', { name: 'API docs' }).getAttribute('href')).toBe(
      '/api/docs',
    );
    await page.goto(`${h.app.url}/api/docs`);
    await page.locator('.swagger-ui .info .title').getByText('MangoStudio API').waitFor({
      timeout: 20_000,
    });
    await page.locator('.opblock-summary-path').first().waitFor();
    expect([...hosts]).toEqual([new URL(h.app.url).host]);
    await page.screenshot({ path: join(h.screenshots, 'api-docs.png') });
    expect(h.problems()).toEqual([]);
  }, 30_000);

  test('Settings → Tools shows a refused value at its field, and saves a good one', async () => {
    await h.signedInContext();
    const page = await h.openPage('/settings/tools');
    const row = page.locator('[data-testid="tool-row"][data-tool="list_directory"]');
    await row.locator('summary').click();
    const field = row.locator('[data-testid="setting-field"][data-name="maxEntries"]');
    await field.locator('input').fill('0');
    await row.getByTestId('save-settings').click();
    const error = field.getByTestId('field-error');
    await error.waitFor();
    expect(await error.innerText()).toContain('maxEntries');
    await page.screenshot({ path: join(h.screenshots, 'settings-tools.png'), fullPage: true });
    await field.locator('input').fill('50');
    await row.getByTestId('save-settings').click();
    await row.getByText('Saved.').waitFor();
    expect(await field.getByTestId('field-error').count()).toBe(0);
    // A tool that cannot be switched off has its switch disabled; the others can be.
    const toggles = await page
      .getByTestId('tool-enabled')
      .evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).disabled));
    expect(toggles.length).toBeGreaterThan(5);
    expect(h.problems()).toEqual([]);
  }, 30_000);
});
