import { Component, type ReactNode } from 'react';
import { ErrorState } from '../components/ErrorState';

interface State {
  error: unknown;
}

/** A page whose code could not be loaded (or that crashed) says so, with a way out, instead of a blank screen. */
export class PageErrorBoundary extends Component<{ children: ReactNode; resetKey: string }, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error };
  }

  componentDidUpdate(previous: { resetKey: string }) {
    // Another page chosen in the nav: try again there.
    if (previous.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }

  render() {
    if (this.state.error) {
      return <ErrorState title="This page could not be shown" error={this.state.error} onRetry={() => window.location.reload()} />;
    }
    return this.props.children;
  }
}
