/**
 * Runs before the rest of the page's code is evaluated (the first import of
 * `main.tsx`): sends the page's first requests (lib/prefetch.ts). The
 * session's is already on its way from `index.html` (a preload); this one
 * takes it.
 */
import { firstReads, prefetch } from './lib/prefetch';

prefetch(['/api/auth/get-session', ...firstReads(location.pathname)]);
