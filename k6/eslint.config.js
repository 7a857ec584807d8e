// The k6 scripts' lint (./lab test): ESLint's recommended rules, with the globals k6 gives a script
// (https://grafana.com/docs/k6/latest/using-k6/environment-variables/, init context's open()).
import js from "@eslint/js";

const k6Globals = {
  __ENV: "readonly",
  __VU: "readonly",
  __ITER: "readonly",
  open: "readonly",
  console: "readonly",
};

export default [
  { ignores: ["node_modules/"] },
  js.configs.recommended,
  {
    files: ["**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: k6Globals },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always"],
      "prefer-const": "error",
      "no-var": "error",
    },
  },
];
