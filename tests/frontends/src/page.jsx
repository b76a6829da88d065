// The test page: one CopilotKit app per load, `?api=v1|v2&agent=<strands-agui route>`.
import "@copilotkit/react-ui/styles.css";
import "@copilotkit/react-core/v2/styles.css";

import { createRoot } from "react-dom/client";

import { V1App } from "./v1.jsx";
import { V2App } from "./v2.jsx";

const params = new URLSearchParams(window.location.search);
const App = params.get("api") === "v2" ? V2App : V1App;
createRoot(document.getElementById("root")).render(<App agent={params.get("agent")} />);
