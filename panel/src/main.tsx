// The panel's entry point, bundled into /panel/assets/app-<digest>.js.
import { render } from 'preact';
import { App } from './app.tsx';

render(<App />, document.getElementById('app')!);
