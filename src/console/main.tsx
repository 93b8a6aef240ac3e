import { render } from 'preact';
import { App } from './shell/app.js';
import './styles.css';

const root = document.getElementById('app');
if (root !== null) {
  root.replaceChildren();
  render(<App />, root);
}
