// Node-RED's settings for examples/node-red of toolwright (loaded by setup.sh,
// `node-red --settings settings.js`). Everything comes from the environment
// setup.sh sets: the port, the user directory (flows, credentials) and the
// one editor account. The editor is on 127.0.0.1 only; nothing reaches out
// (no update check, no palette catalogue, no tours).
const path = require("path");
// bcryptjs is one of Node-RED's own dependencies.
const bcrypt = require(require.resolve("bcryptjs", { paths: [path.join(process.env.NR_APP_DIR, "node_modules", "node-red")] }));

module.exports = {
    uiHost: "127.0.0.1",
    uiPort: Number(process.env.NR_PORT || 18304),
    userDir: process.env.NR_USER_DIR,
    flowFile: "flows.json",
    credentialSecret: false,
    // The editor's sign-in: one operator account with every permission. Its
    // token is kept by the editor in the browser's local storage.
    adminAuth: {
        type: "credentials",
        sessionExpiryTime: 86400,
        users: [{
            username: process.env.NR_USER,
            password: bcrypt.hashSync(process.env.NR_PASSWORD, 8),
            permissions: "*"
        }]
    },
    diagnostics: { enabled: false, ui: false },
    telemetry: { enabled: false, updateNotification: false },
    runtimeState: { enabled: false, ui: false },
    logging: { console: { level: "warn", metrics: false, audit: false } },
    externalModules: { autoInstall: false, palette: { allowInstall: false, allowUpload: false } },
    editorTheme: {
        tours: false,
        projects: { enabled: false },
        palette: { catalogues: [] },
        codeEditor: { lib: "monaco" },
        multiplayer: { enabled: false },
        header: { title: "Harbour control" }
    },
    functionExternalModules: false,
    exportGlobalContextKeys: false
};
