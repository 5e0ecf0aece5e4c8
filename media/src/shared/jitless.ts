// Imported first: zod would otherwise probe `new Function` on its first parse, which the webview's CSP
// (no 'unsafe-eval') reports as a violation even though zod catches it. Interpreted parsing is enough.
import { z } from 'zod';

z.config({ jitless: true });
