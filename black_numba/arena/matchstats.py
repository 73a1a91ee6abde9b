"""Match statistics: Elo with a 95% interval, LOS, pentanomial counts and the GSPRT.

Scores are from the first engine's side: a win 1, a draw 1/2, a loss 0. A game pair (one
opening, both colours) scores 0, 1/2, 1, 3/2 or 2 points: the pentanomial counts
[LL, LD, WL + DD, WD, WW]. The two games of a pair share an opening, so their results are
correlated; the pair, not the game, is the independent sample, and the pentanomial variance
is the honest one (it is smaller than the trinomial one when openings are unbalanced).

The sequential test is the generalised SPRT of fishtest and fastchess (Michel Van den Bergh,
"A simple derivation of the GSPRT", and fishtest's ``stats/LLRcalc.py``): the log-likelihood
ratio of the maximum-likelihood pentanomial distributions whose expected score (logistic
Elo) or t-value (normalised Elo) is that of H1 and of H0, evaluated on the observed
frequencies, times the number of pairs. Zero counts get 1e-3 (fishtest's regularisation).
"""
import math

ALPHA = BETA = 0.05            # the SPRT's error rates
Z95 = 1.959963984540054        # two-sided 95% quantile of the normal distribution
NELO_PER_T = 800 / math.log(10)  # normalised Elo per unit of t-value (fishtest's constant)
REGULARISE = 1e-3              # stands in for a zero count (fishtest)
SCORE_CLAMP = 1e-6             # a score of 0 or 1 is taken as this close to it (finite Elo)
SECULAR_STEPS = 200            # bisection steps: far below double precision
T_VALUE_ROUNDS = 20            # fixed-point rounds of the t-value MLE (fishtest uses 10)


def elo(score):
    """Logistic Elo difference of an expected score."""
    score = min(max(score, SCORE_CLAMP), 1 - SCORE_CLAMP)
    return -400 * math.log10(1 / score - 1) + 0.0     # + 0.0: no "-0.0" at an even score


def expected_score(elo_diff):
    """Expected score of a logistic Elo difference."""
    return 1 / (1 + 10 ** (-elo_diff / 400))


def pentanomial(pair_points):
    """[LL, LD, WL + DD, WD, WW] from a list of pair points (0, 0.5, 1, 1.5, 2)."""
    counts = [0] * 5
    for p in pair_points:
        counts[int(round(p * 2))] += 1
    return counts


def _pdf(counts):
    """(N, [(score, probability)]) of trinomial [L, D, W] or pentanomial counts, scores in
    0..1 (a pair's points / 2)."""
    counts = [c if c > 0 else REGULARISE for c in counts]
    n = sum(counts)
    k = len(counts) - 1
    return n, [(i / k, c / n) for i, c in enumerate(counts)]


def _mean_var(pdf):
    mu = sum(p * a for a, p in pdf)
    return mu, sum(p * (a - mu) ** 2 for a, p in pdf)


def _secular(pdf):
    """x with sum p_i a_i / (1 + x a_i) = 0 (the a_i of both signs): the Lagrange multiplier
    of the MLE under one linear constraint. The sum falls strictly with x between the poles
    -1/max(a) and -1/min(a), so bisection finds it."""
    lo, hi = -1 / max(a for a, _ in pdf), -1 / min(a for a, _ in pdf)
    for _ in range(SECULAR_STEPS):
        mid = (lo + hi) / 2
        if sum(p * a / (1 + mid * a) for a, p in pdf) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _mle_mean(pdf, s):
    """The distribution on the same scores nearest pdf (maximum likelihood) with mean s."""
    x = _secular([(a - s, p) for a, p in pdf])
    return [(a, p / (1 + x * (a - s))) for a, p in pdf]


def _mle_t(pdf, ref, t):
    """The distribution nearest pdf with t-value (mean - ref) / sigma = t (fishtest's
    fixed-point iteration, normalized_elo_practical.pdf section 4.1)."""
    mle = [(a, 1 / len(pdf)) for a, _ in pdf]
    for _ in range(T_VALUE_ROUNDS):
        mu, var = _mean_var(mle)
        sigma = math.sqrt(var)
        shifted = [(a - ref - t * sigma * (1 + ((mu - a) / sigma) ** 2) / 2, p)
                   for a, p in pdf]
        x = _secular(shifted)
        mle = [(a, p / (1 + x * b)) for (a, p), (b, _) in zip(pdf, shifted)]
    return mle


def _llr(pdf, h0, h1):
    return sum(p * (math.log(q1) - math.log(q0))
               for (_, p), (_, q0), (_, q1) in zip(pdf, h0, h1))


def llr_logistic(elo0, elo1, counts):
    """GSPRT log-likelihood ratio of H1: Elo = elo1 against H0: Elo = elo0 (logistic Elo)
    on trinomial [L, D, W] or pentanomial counts."""
    if sum(counts) == 0:
        return 0.0
    n, pdf = _pdf(counts)
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * _llr(pdf, _mle_mean(pdf, s0), _mle_mean(pdf, s1))


def llr_normalized(nelo0, nelo1, counts):
    """The same in normalised Elo (fishtest's default model): H0 and H1 fix the t-value
    (score - 1/2) / sigma of a game (of a pair, sqrt(2) times that, for pentanomial counts)."""
    if sum(counts) == 0:
        return 0.0
    n, pdf = _pdf(counts)
    scale = math.sqrt(2) if len(counts) == 5 else 1.0
    t0, t1 = (scale * e / NELO_PER_T for e in (nelo0, nelo1))
    return n * _llr(pdf, _mle_t(pdf, 0.5, t0), _mle_t(pdf, 0.5, t1))


def sprt_bounds(alpha=ALPHA, beta=BETA):
    """(lower, upper) LLR bounds: H0 accepted at or below lower, H1 at or above upper."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def sprt_state(llr, bounds):
    """'H0', 'H1' or None (go on)."""
    return "H0" if llr <= bounds[0] else "H1" if llr >= bounds[1] else None


def los(wins, losses):
    """Likelihood of superiority: the probability that the first engine is the stronger,
    from wins and losses (draws say nothing of it), normal approximation."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses))))


def elo_interval(counts):
    """(Elo, low, high): the score's mean and the 95% interval of the mean from the sample
    variance of trinomial [L, D, W] or pentanomial counts (no regularisation)."""
    n = sum(counts)
    if n == 0:
        return 0.0, 0.0, 0.0
    k = len(counts) - 1
    pdf = [(i / k, c / n) for i, c in enumerate(counts)]
    mu, var = _mean_var(pdf)
    half = Z95 * math.sqrt(var / n)
    return elo(mu), elo(mu - half), elo(mu + half)


def normalized_elo(counts):
    """(nElo, low, high): t-value of a game's score times 800 / ln 10, with its 95% interval
    (fishtest's normalised Elo; None when every sample is equal)."""
    n = sum(counts)
    k = len(counts) - 1
    pdf = [(i / k, c / n) for i, c in enumerate(counts)] if n else []
    mu, var = _mean_var(pdf) if n else (0.5, 0.0)
    if var == 0:
        return None
    sigma = math.sqrt(2 * var if k == 4 else var)      # per game
    games = 2 * n if k == 4 else n
    nelo = (mu - 0.5) / sigma * NELO_PER_T
    half = Z95 * NELO_PER_T / math.sqrt(games)
    return nelo, nelo - half, nelo + half


class Score:
    """The running tally of a match, fed one pair at a time (each game's points for the first
    engine)."""

    def __init__(self):
        self.wins = self.draws = self.losses = 0
        self.penta = [0] * 5

    def add_pair(self, points):
        for p in points:
            if p == 1:
                self.wins += 1
            elif p == 0:
                self.losses += 1
            else:
                self.draws += 1
        self.penta[int(round(2 * sum(points)))] += 1

    @property
    def games(self):
        return self.wins + self.draws + self.losses

    @property
    def pairs(self):
        return sum(self.penta)

    def trinomial(self):
        return [self.losses, self.draws, self.wins]

    def score(self):
        return (self.wins + self.draws / 2) / self.games if self.games else 0.5

    def llr(self, elo0, elo1, model):
        """The SPRT's LLR on the pentanomial counts, in logistic or normalized Elo."""
        f = llr_logistic if model == "logistic" else llr_normalized
        return f(elo0, elo1, self.penta)

    def summary(self):
        """A dict of every figure (for --json and the final lines)."""
        e, lo, hi = elo_interval(self.penta)
        _, tlo, thi = elo_interval(self.trinomial())
        n = normalized_elo(self.penta)
        return {"games": self.games, "pairs": self.pairs, "wins": self.wins,
                "draws": self.draws, "losses": self.losses, "score": self.score(),
                "elo": e, "elo_95": [lo, hi], "elo_trinomial_95": [tlo, thi],
                "nelo": None if n is None else n[0], "nelo_95": None if n is None else n[1:],
                "los": los(self.wins, self.losses),
                "pentanomial": dict(zip(("LL", "LD", "WL+DD", "WD", "WW"), self.penta))}
