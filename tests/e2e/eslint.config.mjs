// The browser journey is linted by web/'s rules (run `npm run lint` in web/).
export { default } from '../../web/eslint.config.mjs';
