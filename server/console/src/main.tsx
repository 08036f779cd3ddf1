/** The console's entry point, loaded by index.html as a module script (no inline script: the CSP forbids it). */
import { render } from "preact";
import { App } from "./app.js";

const root = document.getElementById("app");
if (root) render(<App />, root);
