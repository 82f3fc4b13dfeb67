#!/usr/bin/python3
"""Makes the reference fixtures of the baseline methods' tests (LPP, NPE, LSI,
LTSA, Laplacian eigenmaps).

Run with Debian's python3-sklearn (scikit-learn 1.2.1, numpy 1.24, scipy 1.10):
    /usr/bin/python3 engine/testdata/make_fixtures_graphmethods.py
It writes engine/testdata/graphmethods_*.json.

LTSA, Laplacian eigenmaps and LSI are scikit-learn's own estimators
(LocallyLinearEmbedding(method='ltsa'), SpectralEmbedding, TruncatedSVD with
ARPACK). scikit-learn has no LPP or NPE: their references are the papers'
generalized eigenproblems written out here with numpy and solved by
scipy.linalg.eigh(A, B) (He & Niyogi 2003 §3; He et al. 2005 §3), with the
graph from scikit-learn's kneighbors_graph and NPE's weights from
scikit-learn's barycenter_kneighbors_graph. As the engine documents, the data
are centred first (LPP: degree-weighted mean, NPE: mean). When D > N the
reference takes the papers' SVD route (isometric-projection.txt eq. 7) with
numpy's SVD. Real data (../shared/data) are not stored: the Go test reads
them and skips when absent; only the references are stored.
"""
import gzip, os, sys
import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.datasets import make_swiss_roll
from sklearn.decomposition import TruncatedSVD
from sklearn.manifold import LocallyLinearEmbedding, SpectralEmbedding
from sklearn.manifold._locally_linear import barycenter_kneighbors_graph
from sklearn.neighbors import kneighbors_graph
from fixtures_common import DATA, dumper, load, load_labels

dump = dumper("graphmethods_")


def or_distance_graph(X, k):
    """kNN graph (k others) symmetrized by the OR rule, values = distances."""
    G = kneighbors_graph(X, k, mode="distance", include_self=False)
    return G.maximum(G.T).tocsr()


def supervised_distance_graph(X, labels):
    """Every pair of distinct points of the same class, values = distances."""
    n = X.shape[0]
    D = scipy.spatial.distance.cdist(X, X)
    same = (labels[:, None] == labels[None, :]) & ~np.eye(n, dtype=bool)
    return sp.csr_matrix(np.where(same, D, 0.0)), same


def heat(G):
    """exp(-d²/t) on the stored edges, t = mean of d² over them."""
    W = G.copy().astype(np.float64)
    t = np.mean(W.data ** 2)
    W.data = np.exp(-W.data ** 2 / t)
    return W, t


def lpp_reference(X, W, dim, keep=None):
    """LPP: X L Xᵀ a = λ X D Xᵀ a, smallest λ, X centred on the degree-weighted
    mean. Direct eigh(A, B) when X D Xᵀ is nonsingular, the SVD route else;
    keep = p keeps the p leading singular directions (the PCA step)."""
    W = sp.csr_matrix(W)
    d = np.asarray(W.sum(axis=1)).ravel()
    mu = (d[:, None] * X).sum(axis=0) / d.sum()
    Xc = X - mu
    n, D = X.shape
    if D < n and keep is None:
        L = sp.diags(d) - W
        A = Xc.T @ (L @ Xc)
        B = Xc.T @ (d[:, None] * Xc)
        vals, vecs = scipy.linalg.eigh(A, B, subset_by_index=[0, dim - 1])
        return vals, vecs, Xc @ vecs, mu
    Xh = np.sqrt(d)[:, None] * Xc
    U, s, Vt = np.linalg.svd(Xh, full_matrices=False)
    r = int(np.sum(s > 1e-5 * s[0]))
    if keep is not None:
        r = min(r, keep)
    U, s, V = U[:, :r], s[:r], Vt[:r].T
    isd = 1 / np.sqrt(d)
    Wt = sp.diags(isd) @ W @ sp.diags(isd)
    R = U.T @ (Wt @ U)
    mu_vals, c = np.linalg.eigh((R + R.T) / 2)
    mu_vals, c = mu_vals[::-1][:dim], c[:, ::-1][:, :dim]
    a = V @ (c / s[:, None])
    return 1 - mu_vals, a, Xc @ a, mu


def npe_reference(X, k, reg, dim):
    """NPE: X M Xᵀ a = λ X Xᵀ a, smallest λ, M = (I−W)ᵀ(I−W), X centred."""
    n, D = X.shape
    W = barycenter_kneighbors_graph(X, k, reg=reg)
    IW = sp.eye(n) - W
    mu = X.mean(axis=0)
    Xc = X - mu
    if D < n:
        Z = IW @ Xc
        A = Z.T @ Z
        B = Xc.T @ Xc
        vals, vecs = scipy.linalg.eigh(A, B, subset_by_index=[0, dim - 1])
        return vals, vecs, Xc @ vecs, mu
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    r = int(np.sum(s > 1e-5 * s[0]))
    U, s, V = U[:, :r], s[:r], Vt[:r].T
    Z = IW @ U
    vals, c = np.linalg.eigh(Z.T @ Z)
    vals, c = vals[:dim], c[:, :dim]
    a = V @ (c / s[:, None])
    return vals, a, Xc @ a, mu


def coo(A):
    A = sp.coo_matrix(A)
    return {"rows": A.shape[0], "cols": A.shape[1], "i": A.row.tolist(), "j": A.col.tolist(), "v": A.data.tolist()}


def main():
    X, _ = make_swiss_roll(n_samples=400, noise=0.05, random_state=7)
    Xnew, _ = make_swiss_roll(n_samples=20, noise=0.05, random_state=8)

    # LTSA: k = 10 neighbours other than the point (scikit-learn's rule).
    ltsa = LocallyLinearEmbedding(n_neighbors=10, n_components=2, method="ltsa", eigen_solver="dense")
    dump("swiss_ltsa", X=X, k=10, dim=2, embedding=ltsa.fit_transform(X))

    # Laplacian eigenmaps: scikit-learn counts the point itself among its
    # n_neighbors, so K = 10 others is n_neighbors = 11.
    se = SpectralEmbedding(n_components=2, affinity="nearest_neighbors", n_neighbors=11,
                           eigen_solver="arpack", random_state=0)
    dump("swiss_spectral", X=X, k=10, dim=2, embedding=se.fit_transform(X))
    W, t = heat(or_distance_graph(X, 10))
    se = SpectralEmbedding(n_components=3, affinity="precomputed", eigen_solver="arpack", random_state=0)
    dump("swiss_spectral_heat", X=X, k=10, dim=3, t=t, embedding=se.fit_transform(W.toarray()))

    # LPP (heat kernel, k = 10) and NPE (k = 10, reg = 1e-3) on the roll.
    vals, proj, emb, mu = lpp_reference(X, W, 2)
    dump("swiss_lpp", X=X, X_new=Xnew, k=10, dim=2, t=t, eigenvalues=vals, projection=proj, embedding=emb,
         mean=mu, transform=(Xnew - mu) @ proj)
    vals, proj, emb, mu = npe_reference(X, 10, 1e-3, 2)
    dump("swiss_npe", X=X, X_new=Xnew, k=10, dim=2, reg=1e-3, eigenvalues=vals, projection=proj, embedding=emb,
         mean=mu, transform=(Xnew - mu) @ proj)

    # LSI: TruncatedSVD (ARPACK) of a random sparse count matrix, and of new
    # documents.
    rng = np.random.RandomState(3)
    A = sp.random(300, 500, density=0.03, random_state=rng, format="csr")
    A.data = np.ceil(A.data * 5)
    Anew = sp.random(7, 500, density=0.03, random_state=rng, format="csr")
    tsvd = TruncatedSVD(n_components=5, algorithm="arpack", random_state=0)
    emb = tsvd.fit_transform(A)
    dump("lsi_random", A=coo(A), A_new=coo(Anew), dim=5, embedding=emb, transform=tsvd.transform(Anew),
         components=tsvd.components_, singular_values=tsvd.singular_values_)

    if not os.path.isdir(DATA):
        print("no ../shared/data: real-data fixtures skipped", file=sys.stderr)
        return
    Y = load("yale32")  # 165 x 1024, D > N
    ly = load_labels("yale32")
    # k = 20: with fewer neighbours the faces' alignment matrix has a
    # multiple zero eigenvalue (k = 12: three) and the embedding is not
    # determined; at 20 its bottom eigenvalues are 0, 0.084, 0.197, 0.256.
    ltsa = LocallyLinearEmbedding(n_neighbors=20, n_components=3, method="ltsa", eigen_solver="dense")
    dump("yale_ltsa", tag="yale32", k=20, dim=3, embedding=ltsa.fit_transform(Y))
    se = SpectralEmbedding(n_components=3, affinity="nearest_neighbors", n_neighbors=9,
                           eigen_solver="arpack", random_state=0)
    dump("yale_spectral", tag="yale32", k=8, dim=3, embedding=se.fit_transform(Y))
    W, t = heat(or_distance_graph(Y, 5))
    vals, proj, emb, mu = lpp_reference(Y, W, 4)
    dump("yale_lpp", tag="yale32", k=5, dim=4, t=t, eigenvalues=vals, embedding=emb)
    vals, proj, emb, mu = lpp_reference(Y, W, 4, keep=50)
    dump("yale_lpp_pca50", tag="yale32", k=5, dim=4, pca_dim=50, t=t, eigenvalues=vals, embedding=emb)
    # Supervised LPP (the graph of isometric-projection.txt Table 2: all
    # points of the class, k = 0), heat kernel, after a PCA step of 30
    # directions (with all of them, D > N makes the 14 class indicators
    # solutions with λ = 0: the Go test checks that separately).
    G, _ = supervised_distance_graph(Y, ly)
    W, t = heat(G)
    vals, proj, emb, mu = lpp_reference(Y, W, 5, keep=30)
    dump("yale_lpp_supervised", tag="yale32", k=0, dim=5, pca_dim=30, t=t, eigenvalues=vals, embedding=emb)
    vals, proj, emb, mu = npe_reference(Y, 6, 1e-3, 4)
    dump("yale_npe", tag="yale32", k=6, dim=4, reg=1e-3, eigenvalues=vals, embedding=emb)

    # LSI on the Reuters-21578 documents, unit length (isometric-projection.txt
    # Table 1): the singular values and the first 40 rows of the embedding.
    with gzip.open(os.path.join(DATA, "reuters21578", "reuters21578_X.mtx.gz"), "rb") as f:
        import scipy.io
        R = sp.csr_matrix(scipy.io.mmread(f))
    from sklearn.preprocessing import normalize
    R = normalize(R)
    tsvd = TruncatedSVD(n_components=10, algorithm="arpack", random_state=0)
    emb = tsvd.fit_transform(R)
    dump("reuters_lsi", tag="reuters21578", dim=10, singular_values=tsvd.singular_values_, embedding=emb[:40])


if __name__ == "__main__":
    import scipy.spatial.distance  # noqa: F401 (supervised_distance_graph)
    main()
