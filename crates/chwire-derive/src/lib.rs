//! `#[derive(Row)]` for chwire.
//!
//! Maps the named fields of a struct to ClickHouse columns, by name. Field attributes:
//! * `#[row(rename = "column")]`: the column's name, if it differs from the field's;
//! * `#[row(skip)]`: not a column (read as `Default::default()`, not written);
//! * `#[row(flatten)]`: a nested struct that also derives `Row`, whose columns are
//!   spliced in at this place.
//!
//! Container attribute `#[row(crate = "path")]` names the chwire crate when it is re-exported.
//! The struct may have one lifetime parameter, for borrowed fields (`&'a str`, `&'a [u8]`).

#![warn(missing_docs)]

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, ToTokens};
use syn::{parse_macro_input, spanned::Spanned, Data, DeriveInput, Error, Fields, GenericParam, LitStr, Type};

/// Implements `chwire::row::Row` for a struct with named fields: one column per field, named
/// as the field (attributes in the crate's docs). Enums, tuple structs, type or const
/// parameters, a second lifetime, `where` clauses and unknown `row` attributes are compile
/// errors.
#[proc_macro_derive(Row, attributes(row))]
pub fn derive_row(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

enum Kind {
    Column(String),
    Flatten,
    Skip,
}

struct Field {
    ident: syn::Ident,
    ty: Type,
    kind: Kind,
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let mut krate: syn::Path = syn::parse_quote!(::chwire);
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("row")) {
        attr.parse_nested_meta(|m| {
            if m.path.is_ident("crate") {
                let s: LitStr = m.value()?.parse()?;
                krate = s.parse()?;
                Ok(())
            } else {
                Err(m.error("unknown container attribute; expected `crate = \"path\"`"))
            }
        })?;
    }

    let mut lifetime: Option<syn::Lifetime> = None;
    for p in &input.generics.params {
        match p {
            GenericParam::Lifetime(l) if lifetime.is_none() => lifetime = Some(l.lifetime.clone()),
            other => {
                return Err(Error::new(
                    other.span(),
                    "#[derive(Row)] supports at most one lifetime parameter and no type or const parameters",
                ))
            }
        }
    }
    if input.generics.where_clause.is_some() {
        return Err(Error::new(input.generics.where_clause.span(), "#[derive(Row)] does not support where clauses"));
    }

    let Data::Struct(data) = &input.data else {
        return Err(Error::new(Span::call_site(), "#[derive(Row)] works on structs with named fields"));
    };
    let Fields::Named(named) = &data.fields else {
        return Err(Error::new(data.fields.span(), "#[derive(Row)] works on structs with named fields"));
    };
    let mut fields = Vec::new();
    for f in &named.named {
        let ident = f.ident.clone().expect("named field");
        let mut kind = Kind::Column(ident.to_string().trim_start_matches("r#").to_string());
        for attr in f.attrs.iter().filter(|a| a.path().is_ident("row")) {
            attr.parse_nested_meta(|m| {
                if m.path.is_ident("rename") {
                    let s: LitStr = m.value()?.parse()?;
                    kind = Kind::Column(s.value());
                } else if m.path.is_ident("skip") {
                    kind = Kind::Skip;
                } else if m.path.is_ident("flatten") {
                    kind = Kind::Flatten;
                } else {
                    return Err(m.error("unknown field attribute; expected `rename = \"..\"`, `skip` or `flatten`"));
                }
                Ok(())
            })?;
        }
        fields.push(Field { ident, ty: f.ty.clone(), kind });
    }

    let row_name = name.to_string();
    let (impl_lt, value_ty, bind_lt) = match &lifetime {
        Some(l) => (quote!(<#l>), quote!(#name<'__chwire_r>), l.to_token_stream()),
        None => (quote!(), quote!(#name), quote!('static)),
    };
    let self_ty = match &lifetime {
        Some(l) => quote!(#name<#l>),
        None => quote!(#name),
    };
    let p = quote!(#krate::row::__private);
    let row_trait = quote!(#krate::row::Row);

    let mut count = quote!(0usize);
    let mut names = Vec::new();
    let mut bind_read = Vec::new();
    let mut bind_write = Vec::new();
    let mut read_fields = Vec::new();
    let mut write = Vec::new();
    for f in &fields {
        let ident = &f.ident;
        let ty = &f.ty;
        let field_name = ident.to_string();
        let offset = count.clone();
        match &f.kind {
            Kind::Column(col) => {
                names.push(quote!(out.push(#col);));
                bind_read.push(quote!(#p::bind_read(
                    header,
                    #row_name,
                    #field_name,
                    #col,
                    plan,
                    <#ty as #krate::row::FromColumn<#bind_lt>>::check,
                    ::core::any::type_name::<#ty>(),
                )?;));
                bind_write.push(quote!(#p::bind_write::<#ty>(header, #row_name, #field_name, #col, first + #offset)?;));
                read_fields.push(quote!(#ident: #p::read(block, plan, first + #offset, row)?,));
                write.push(quote!(#p::write(&self.#ident, builders, first + #offset)?;));
                count = quote!(#count + 1);
            }
            Kind::Flatten => {
                names.push(quote!(<#ty as #row_trait>::column_names(out);));
                bind_read.push(quote!(#p::bind_read_flat::<#ty>(header, plan)?;));
                bind_write.push(quote!(#p::bind_write_flat::<#ty>(header, first + #offset)?;));
                read_fields.push(quote!(#ident: #p::read_flat(block, plan, first + #offset, row)?,));
                write.push(quote!(#row_trait::write(&self.#ident, builders, first + #offset)?;));
                count = quote!(#count + <#ty as #row_trait>::COLUMN_COUNT);
            }
            Kind::Skip => {
                read_fields.push(quote!(#ident: ::core::default::Default::default(),));
            }
        }
    }

    Ok(quote! {
        #[automatically_derived]
        #[allow(unused_variables)]
        impl #impl_lt #row_trait for #self_ty {
            type Value<'__chwire_r> = #value_ty;
            const COLUMN_COUNT: usize = #count;

            fn column_names(out: &mut ::std::vec::Vec<&'static str>) {
                #(#names)*
            }

            fn bind_read(header: &#p::Block, plan: &mut ::std::vec::Vec<usize>) -> #p::Result<()> {
                #(#bind_read)*
                ::core::result::Result::Ok(())
            }

            #[inline]
            fn read<'__chwire_r>(block: &'__chwire_r #p::Block, plan: &[usize], first: usize, row: usize) -> #p::Result<Self::Value<'__chwire_r>> {
                ::core::result::Result::Ok(#name { #(#read_fields)* })
            }

            fn bind_write(header: &#p::Block, first: usize) -> #p::Result<()> {
                #(#bind_write)*
                ::core::result::Result::Ok(())
            }

            #[inline]
            fn write(&self, builders: &mut #p::Builders, first: usize) -> #p::Result<()> {
                #(#write)*
                ::core::result::Result::Ok(())
            }
        }
    })
}
