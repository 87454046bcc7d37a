import { createBrowserRouter, type RouteObject } from 'react-router-dom';
import { AppLayout } from '../layout/AppLayout';
import { NotFoundPage } from '../pages/errors/NotFoundPage';
import { AcceptInvitationPage } from '../pages/session/AcceptInvitationPage';
import { ActivateAccountPage } from '../pages/session/ActivateAccountPage';
import { ForgotPasswordPage } from '../pages/session/ForgotPasswordPage';
import { PublicCapabilityPage } from '../pages/session/PublicCapabilityPage';
import { ResetPasswordPage } from '../pages/session/ResetPasswordPage';
import { SignInPage } from '../pages/session/SignInPage';
import { SignUpPage } from '../pages/session/SignUpPage';
import { VicidialSignInPage } from '../pages/session/VicidialSignInPage';
import { UnsubscribePage } from '../pages/unsubscribe/UnsubscribePage';
import { VideoChatPage } from '../pages/video/VideoChatPage';
import { WebChatPage } from '../widget/WebChatPage';
import { RequireAuth } from './RequireAuth';
import { RootRedirect } from './RootRedirect';
import { RoutePage } from './RoutePage';
import { CONSOLE_ROUTES, PUBLIC_CAPABILITY_PAGES } from './route-table';

export const routes: RouteObject[] = [
  // Public routes (spec §2).
  { path: '/session/signin', element: <SignInPage /> },
  { path: '/session/signup', element: <SignUpPage /> },
  { path: '/session/activate/:token', element: <ActivateAccountPage /> },
  { path: '/session/forgot-password', element: <ForgotPasswordPage /> },
  { path: '/session/resetPassword/:token', element: <ResetPasswordPage /> },
  { path: '/session/invitation/:token', element: <AcceptInvitationPage /> },
  { path: '/session/404', element: <NotFoundPage /> },
  // The web-chat page is public (customers, and the widget's iframe); listed before the protected
  // routes so it wins over its APP_ROUTES entry.
  { path: '/WindowChat/windowChat/', element: <WebChatPage /> },
  // The recipient's unsubscribe page (signed link from a mail; issue 20 item 5).
  { path: '/session/Unsubscribe/:email', element: <UnsubscribePage /> },
  // The customer's video call page (single-use link from the agent; issue 23 item 1).
  { path: '/VideoChatContainer/:videoChatId', element: <VideoChatPage /> },
  // An external dialer's single-use sign-in link (issue 22 item 5, spec's ExternLoginVicidial).
  { path: '/session/vicidial/:id', element: <VicidialSignInPage /> },
  { path: '/session/vicidial/:id/:callback', element: <VicidialSignInPage /> },
  ...PUBLIC_CAPABILITY_PAGES.filter((page) => page.capability !== 'video').map(({ path, ...page }) => ({
    path,
    element: <PublicCapabilityPage {...page} />,
  })),
  // Protected routes: every entry of APP_ROUTES (plus the demo prefixes) inside the layout.
  {
    element: <RequireAuth />,
    children: [
      { index: true, path: '/', element: <RootRedirect /> },
      {
        element: <AppLayout />,
        children: CONSOLE_ROUTES.map((route) => ({ path: route.path, element: <RoutePage route={route} /> })),
      },
    ],
  },
  { path: '*', element: <NotFoundPage /> },
];

export function createRouter() {
  return createBrowserRouter(routes);
}
