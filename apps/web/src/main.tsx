// First: the page's first requests go out before the rest of the code is evaluated.
import './bootstrap';
import { render } from 'preact';
import { App } from './App';

render(<App />, document.getElementById('app') as HTMLElement);
