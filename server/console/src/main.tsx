/** The console's entry point, loaded by index.html as a module script (no inline script: the CSP forbids it). */
import { render } from "preact";
import { App } from "./app.js";
import { ROOT } from "./router.js";
import { SetupPage } from "./setup-page.js";
import { takeSetupCode } from "./setup-session.js";

const root = document.getElementById("app");
// The setup page is the customer's, opened with a setup link: it is chosen before the console's
// sign-in renders, so it neither asks for nor reads an API key; its code leaves the address at once.
const setup = location.pathname.replace(/\/+$/, "") === `${ROOT}/setup`;
if (root) render(setup ? <SetupPage code={takeSetupCode()} /> : <App />, root);
