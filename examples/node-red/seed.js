// The fixture flows of examples/node-red, deployed through Node-RED's admin
// HTTP API (a full deploy replaces whatever the editor deployed before), so
// every `setup.sh start` meets the same 14 flows.
//   NR_URL=http://127.0.0.1:18304 NR_USER=... NR_PASSWORD=... node seed.js
// Ids are readable and fixed, so tests can name a node: flow ids are
// "flow-<slug>", node ids "<slug>-poll", "<slug>-sensor-a", ...
const base = process.env.NR_URL;
const names = [
    "Harbour lights", "Tide gauge", "Berth sensors", "Fuel dock", "Weather station",
    "Ferry schedule", "Crane telemetry", "Gate access", "Radio log", "Pilot requests",
    "Buoy monitor", "Fog horn", "Cargo scanner", "Night watch",
];
const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-");

function flows() {
    const out = [];
    names.forEach((name, i) => {
        const s = slug(name), z = "flow-" + s, n = i + 1;
        out.push({ id: z, type: "tab", label: name, disabled: false, info: "The " + name.toLowerCase() + " of Toolwright Bay." });
        out.push({
            id: s + "-poll", type: "inject", z, name: "Poll " + name.toLowerCase(),
            props: [{ p: "payload" }, { p: "topic", vt: "str" }],
            repeat: String(30 * n), crontab: "", once: false, onceDelay: 0.1,
            topic: s, payload: JSON.stringify({ station: n }), payloadType: "json",
            x: 150, y: 80, wires: [[s + "-sensor-a"]],
        });
        for (const [k, letter, y] of [[0, "a", 80], [1, "b", 140]]) {
            out.push({
                id: s + "-sensor-" + letter, type: "change", z, name: "Sensor " + letter.toUpperCase() + " " + name.toLowerCase(),
                rules: [{ t: "set", p: "reading", pt: "msg", to: String(10 * n + k), tot: "num" }],
                action: "", property: "", from: "", to: "", reg: false,
                x: 380, y, wires: [[k === 0 ? s + "-sensor-b" : s + "-throttle"]],
            });
        }
        out.push({
            id: s + "-throttle", type: "delay", z, name: "Throttle " + name.toLowerCase(),
            pauseType: "rate", timeout: "5", timeoutUnits: "seconds", rate: "1", nbRateUnits: "1",
            rateUnits: "second", randomFirst: "1", randomLast: "5", randomUnits: "seconds",
            drop: true, allowrate: false, outputs: 1, x: 620, y: 140, wires: [[s + "-log"]],
        });
        out.push({
            id: s + "-log", type: "debug", z, name: name + " log", active: false, tosidebar: true,
            console: false, tostatus: false, complete: "payload", targetType: "msg", x: 830, y: 140, wires: [],
        });
    });
    return out;
}

async function main() {
    let res = await fetch(base + "/auth/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ client_id: "node-red-admin", grant_type: "password", scope: "*",
            username: process.env.NR_USER, password: process.env.NR_PASSWORD }),
    });
    if (!res.ok) throw new Error("sign-in to the admin API: HTTP " + res.status);
    const { access_token } = await res.json();
    res = await fetch(base + "/flows", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer " + access_token,
            "Node-RED-API-Version": "v1", "Node-RED-Deployment-Type": "full" },
        body: JSON.stringify(flows()),
    });
    if (!res.ok) throw new Error("deploy the fixture flows: HTTP " + res.status + " " + await res.text());
    await fetch(base + "/auth/revoke", { method: "POST", headers: { "content-type": "application/json",
        authorization: "Bearer " + access_token }, body: JSON.stringify({ token: access_token }) });
}
main().catch((e) => { console.error("seed.js: " + e.message); process.exit(1); });
