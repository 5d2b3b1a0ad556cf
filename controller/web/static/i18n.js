// The page's words in the reader's language: the catalogue of controller/language/locale/*/page.po as JSON
// (GET /api/messages), the language chosen by the switch (remembered in this browser) or, until one is
// chosen, the browser's Accept-Language (the server negotiates it), else the table's.
// In the scripts a sentence is written _("the {name} of ...", {name: value}); _n(singular, plural, n, args)
// when it depends on a count. In the HTML an element marked data-i18n has its text translated, and
// data-i18n-attrs="title placeholder" names attributes to translate. tools/catalogue.py extracts both.
"use strict";

const I18N = { language: "en", messages: {}, plural: "n!=1", languages: [], ready: null, listeners: [] };
const LANGUAGE_KEY = "referee-language";

function _format(text, args) {
  if (!args) return text;
  return text.replace(/\{(\w+)\}/g, (all, name) => {
    if (!(name in args)) return all;
    const value = args[name];
    return typeof value === "number" ? formatNumber(value) : String(value);
  });
}

// A sentence of the catalogue, its {fields} filled from args (numbers written as the language writes them).
function _(message, args) {
  const found = I18N.messages[message];
  return _format(typeof found === "string" && found ? found : message, args);
}

// A sentence that depends on the count n (French: 0 and 1 are singular); {n} is the count.
function _n(singular, plural, n, args) {
  const many = I18N.plural === "n>1" ? n > 1 : n !== 1;
  const forms = I18N.messages[singular];
  let text = many ? plural : singular;
  if (Array.isArray(forms) && forms[many ? 1 : 0]) text = forms[many ? 1 : 0];
  return _format(text, Object.assign({ n }, args || {}));
}

// `path` asking for its answer in the page's language (the server's sentences: refusals, advice, verdicts).
function withLang(path) {
  return `${path}${path.includes("?") ? "&" : "?"}lang=${encodeURIComponent(I18N.language)}`;
}

function formatNumber(value, digits) {
  const options = digits === undefined ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits };
  try {
    return new Intl.NumberFormat(I18N.language, options).format(value);
  } catch (err) {
    return String(value);
  }
}

// The language this browser chose with the switch (null: none chosen, the server negotiates).
function chosenLanguage() {
  try { return localStorage.getItem(LANGUAGE_KEY); } catch (err) { return null; }
}

// The catalogue of `code` (null: the browser's), then every marked element of the page said in it.
async function loadLanguage(code) {
  const response = await fetch(code ? `/api/messages?lang=${encodeURIComponent(code)}` : "/api/messages");
  const data = await response.json();
  I18N.language = data.language;
  I18N.messages = data.messages || {};
  I18N.plural = data.plural || "n!=1";
  I18N.languages = data.languages || [];
  document.documentElement.lang = I18N.language;
  translatePage(document);
  fillLanguageSwitch();
  I18N.listeners.forEach((listener) => listener(I18N.language));
  return I18N.language;
}

function translatePage(root) {
  root.querySelectorAll("[data-i18n]").forEach((node) => {
    if (node.dataset.i18nSource === undefined) node.dataset.i18nSource = node.textContent.replace(/\s+/g, " ").trim();
    node.textContent = _(node.dataset.i18nSource);
  });
  root.querySelectorAll("[data-i18n-attrs]").forEach((node) => {
    for (const name of node.dataset.i18nAttrs.split(/\s+/).filter(Boolean)) {
      const key = `i18nAttr${name.replace(/(^|-)(\w)/g, (m, d, c) => c.toUpperCase())}`;
      if (node.dataset[key] === undefined) node.dataset[key] = (node.getAttribute(name) || "").replace(/\s+/g, " ").trim();
      if (node.dataset[key]) node.setAttribute(name, _(node.dataset[key]));
    }
  });
}

function fillLanguageSwitch() {
  const select = document.getElementById("language");
  if (!select) return;
  select.replaceChildren(...I18N.languages.map((l) => {
    const option = document.createElement("option");
    option.value = l.code;
    option.textContent = l.name;
    return option;
  }));
  select.value = I18N.language;
}

// The switch: the choice is remembered in this browser and the page speaks it at once.
function switchLanguage(code) {
  try { localStorage.setItem(LANGUAGE_KEY, code); } catch (err) { /* private browsing: this visit only */ }
  return loadLanguage(code);
}

// Called with the new language whenever the page's language changes (the live state is asked again in it).
function onLanguage(listener) {
  I18N.listeners.push(listener);
}

window.addEventListener("DOMContentLoaded", () => {
  const select = document.getElementById("language");
  if (select) select.onchange = () => switchLanguage(select.value);
});
I18N.ready = loadLanguage(chosenLanguage()).catch(() => "en");
