import { useMemo, useState } from 'preact/hooks';
import { FLOW_KEYS, QUEUES } from './flow/budget-kind.js';
import { BudgetPage } from './flow/budget-page.js';
import { BudgetsPage } from './flow/budgets-page.js';
import { FailuresPage } from './failures/failures-page.js';
import { OverviewPage } from './overview/overview-page.js';
import { RequestPage } from './requests/request-page.js';
import { RequestsPage } from './requests/requests-page.js';
import { SendPage } from './requests/send-page.js';
import { NewSchedulePage } from './schedules/new-schedule-page.js';
import { SchedulePage } from './schedules/schedule-page.js';
import { SchedulesPage } from './schedules/schedules-page.js';
import { forgetApiKey, storedApiKey, storeApiKey } from './shell/api-key.js';
import { SessionContext, type ConsoleSession } from './shell/context.js';
import { consoleApi } from './shell/ferry-api.js';
import { hrefOf, useRoute, type Route } from './shell/router.js';
import { SignIn } from './sign-in.js';

export function App() {
  const [apiKey, setApiKey] = useState(storedApiKey);
  const [reason, setReason] = useState<string | null>(null);
  const route = useRoute();

  const session = useMemo<ConsoleSession | null>(() => {
    if (apiKey === null) return null;
    return {
      api: consoleApi(apiKey),
      keyRefused: () => {
        forgetApiKey();
        setReason('Ferry no longer accepts that API key (401). Sign in with a valid key.');
        setApiKey(null);
      },
    };
  }, [apiKey]);

  if (session === null) {
    return (
      <SignIn
        reason={reason}
        onSignedIn={(key) => {
          storeApiKey(key);
          setReason(null);
          setApiKey(key);
        }}
      />
    );
  }
  const signOut = () => {
    forgetApiKey();
    setReason('Signed out.');
    setApiKey(null);
  };
  return (
    <SessionContext.Provider value={session}>
      <header class="top">
        <a class="brand" href={hrefOf({ page: 'overview' })}>
          Ferry
        </a>
        <nav aria-label="Sections">
          <NavLink route={route} to={{ page: 'overview' }}>
            Overview
          </NavLink>
          <NavLink route={route} to={{ page: 'requests', query: new URLSearchParams() }} also={['request']}>
            Requests
          </NavLink>
          <NavLink route={route} to={{ page: 'failures', query: new URLSearchParams() }}>
            Failures
          </NavLink>
          <NavLink route={route} to={{ page: 'send' }}>
            Send
          </NavLink>
          <NavLink route={route} to={{ page: 'schedules', query: new URLSearchParams() }} also={['schedule', 'new-schedule']}>
            Schedules
          </NavLink>
          <NavLink route={route} to={{ page: 'queues', query: new URLSearchParams() }} also={['queue']}>
            Queues
          </NavLink>
          <NavLink route={route} to={{ page: 'flow-keys', query: new URLSearchParams() }} also={['flow-key']}>
            Flow keys
          </NavLink>
        </nav>
        <button type="button" class="sign-out" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main class="page">
        <Page route={route} />
      </main>
    </SessionContext.Provider>
  );
}

function NavLink({ route, to, also = [], children }: { route: Route; to: Route; also?: Route['page'][]; children: string }) {
  const current = route.page === to.page || also.includes(route.page);
  return (
    <a href={hrefOf(to)} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'overview':
      return <OverviewPage />;
    case 'requests':
      return <RequestsPage query={route.query} />;
    case 'request':
      return <RequestPage id={route.id} />;
    case 'failures':
      return <FailuresPage query={route.query} />;
    case 'send':
      return <SendPage />;
    case 'schedules':
      return <SchedulesPage query={route.query} />;
    case 'new-schedule':
      return <NewSchedulePage />;
    case 'schedule':
      return <SchedulePage id={route.id} />;
    case 'queues':
      return <BudgetsPage key="queues" of={QUEUES} query={route.query} />;
    case 'queue':
      return <BudgetPage of={QUEUES} name={route.name} />;
    case 'flow-keys':
      return <BudgetsPage key="flow-keys" of={FLOW_KEYS} query={route.query} />;
    case 'flow-key':
      return <BudgetPage of={FLOW_KEYS} name={route.name} />;
  }
}
