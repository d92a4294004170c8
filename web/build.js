// Bundles the UI into OUT_DIR: index.html, app.js (every module of src/ in one file) and
// app.css. Nothing is fetched at run time: the server serves these three files.
// Usage: node build.js OUT_DIR
"use strict";
const fs = require("fs");
const path = require("path");
const esbuild = require("esbuild");

const out = path.resolve(process.argv[2] || "dist");
const src = path.join(__dirname, "src");
fs.mkdirSync(out, { recursive: true });
esbuild.buildSync({
  entryPoints: [path.join(src, "main.js")],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["chrome100", "firefox100", "safari15"],
  outfile: path.join(out, "app.js"),
  logLevel: "warning",
});
esbuild.buildSync({
  entryPoints: [path.join(src, "style.css")],
  bundle: true,
  minify: true,
  outfile: path.join(out, "app.css"),
  logLevel: "warning",
});
fs.copyFileSync(path.join(src, "index.html"), path.join(out, "index.html"));
