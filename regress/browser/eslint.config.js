// eslint's rules for the status page's script (ui/*.js), run by
// ui.test.js: the recommended set, browser globals, and a ban on the
// properties that would parse data as HTML.
"use strict";
const js = require("@eslint/js");

const browser = {};
for (const g of ["window", "document", "location", "fetch", "EventSource",
    "setTimeout", "clearTimeout", "setInterval", "clearInterval",
    "Promise", "Map", "Date", "JSON", "Math", "Object", "Array", "String",
    "isNaN", "parseFloat", "URLSearchParams", "encodeURIComponent", "decodeURIComponent"])
	browser[g] = "readonly";

module.exports = [
	js.configs.recommended,
	{
		files: ["**/*.js"],
		languageOptions: {
			ecmaVersion: 2020,
			sourceType: "script",
			globals: browser
		},
		rules: {
			"no-restricted-properties": ["error",
			    { property: "innerHTML", message: "text only" },
			    { property: "outerHTML", message: "text only" },
			    { property: "insertAdjacentHTML", message: "text only" },
			    { object: "document", property: "write",
			      message: "text only" }],
			"no-eval": "error",
			"no-implied-eval": "error",
			"no-new-func": "error"
		}
	}
];
