/** Decorative 404 scene: a console window with a lost conversation. Colours follow the theme. */
export function NotFoundIllustration() {
  return (
    <svg className="not-found__art" viewBox="0 0 480 320" role="img" aria-hidden="true" focusable="false">
      <ellipse cx="240" cy="292" rx="170" ry="14" className="nf-shadow" />
      <circle cx="240" cy="150" r="128" className="nf-blob" />
      <g transform="translate(118 62)">
        <rect width="244" height="170" rx="16" className="nf-window" />
        <rect width="244" height="34" rx="16" className="nf-bar" />
        <rect y="18" width="244" height="16" className="nf-bar" />
        <circle cx="20" cy="17" r="5" className="nf-dot nf-dot--red" />
        <circle cx="38" cy="17" r="5" className="nf-dot nf-dot--amber" />
        <circle cx="56" cy="17" r="5" className="nf-dot nf-dot--green" />
        <text x="122" y="118" textAnchor="middle" className="nf-code">
          404
        </text>
        <rect x="62" y="136" width="120" height="8" rx="4" className="nf-line" />
        <rect x="84" y="152" width="76" height="8" rx="4" className="nf-line nf-line--soft" />
      </g>
      <g transform="translate(356 40)">
        <path
          d="M0 18 a18 18 0 0 1 18 -18 h44 a18 18 0 0 1 18 18 v16 a18 18 0 0 1 -18 18 h-30 l-14 12 v-12 a18 18 0 0 1 -18 -18z"
          className="nf-bubble"
        />
        <text x="40" y="35" textAnchor="middle" className="nf-bubble-text">
          ?
        </text>
      </g>
      <g transform="translate(58 170)">
        <path
          d="M64 18 a18 18 0 0 0 -18 -18 h-28 a18 18 0 0 0 -18 18 v10 a18 18 0 0 0 18 18 h18 l12 10 v-10 a18 18 0 0 0 16 -18z"
          className="nf-bubble nf-bubble--soft"
        />
        <circle cx="18" cy="23" r="3.5" className="nf-typing" />
        <circle cx="31" cy="23" r="3.5" className="nf-typing" />
        <circle cx="44" cy="23" r="3.5" className="nf-typing" />
      </g>
    </svg>
  );
}
