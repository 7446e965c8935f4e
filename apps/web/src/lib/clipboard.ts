/** Copying to the clipboard: the code blocks' copy buttons, API keys. */
/** The copy buttons of rendered code blocks (one listener on the container). */
export async function onCopyClick(event: MouseEvent): Promise<void> {
  const button = (event.target as Element | null)?.closest?.('button[data-copy]');
  if (!button) return;
  const code = button.closest('.code-block')?.querySelector('code')?.textContent ?? '';
  await copyText(code);
  button.textContent = 'Copied';
  setTimeout(() => {
    button.textContent = 'Copy';
  }, 1500);
}

export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}
